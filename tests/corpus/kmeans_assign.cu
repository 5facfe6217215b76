// shape modelled on: Rodinia kmeans kmeans_kernel (find nearest centroid per point, feature-major loops), written from scratch for kt-tui's corpus
// points: npoints x nfeatures (row-major), centroids: nclusters x nfeatures
__global__ void kmeans_assign(const float *points, const float *centroids, int *membership,
                              int npoints, int nclusters, int nfeatures)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < npoints) {
        int best = 0;
        float best_dist = 3.4e38f;
        for (int c = 0; c < nclusters; c++) {
            float dist = 0.0f;
            for (int f = 0; f < nfeatures; f++) {
                float d = points[p * nfeatures + f] - centroids[c * nfeatures + f];
                dist += d * d;
            }
            if (dist < best_dist) {
                best_dist = dist;
                best = c;
            }
        }
        membership[p] = best;
    }
}
