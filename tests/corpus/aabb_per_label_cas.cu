// shape modelled on: per-cluster bounding boxes of point-cloud libraries (PCL's getMinMax3D over each cluster of a Euclidean cluster extraction, Open3D's per-label axis-aligned boxes; label -1 is noise, as DBSCAN marks it): float min and max by an atomicCAS loop on the bits, a grid-stride loop over the points, written from scratch for kt-tui's corpus
__device__ void atomic_min_float(float *addr, float v)
{
    int *p = (int *)addr;
    int old = *p;
    while (v < __int_as_float(old)) {
        const int seen = atomicCAS(p, old, __float_as_int(v));
        if (seen == old)
            break;
        old = seen;
    }
}

__device__ void atomic_max_float(float *addr, float v)
{
    int *p = (int *)addr;
    int old = *p;
    while (v > __int_as_float(old)) {
        const int seen = atomicCAS(p, old, __float_as_int(v));
        if (seen == old)
            break;
        old = seen;
    }
}

__global__ void label_aabb(const float *xyz, const int *labels, int npoints, int nlabels, float *box_min, float *box_max)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < npoints; i += gridDim.x * blockDim.x) {
        const int l = labels[i];
        if (l < 0 || l >= nlabels)
            continue;
        for (int d = 0; d < 3; ++d) {
            const float v = xyz[(size_t)i * 3 + d];
            atomic_min_float(&box_min[l * 3 + d], v);
            atomic_max_float(&box_max[l * 3 + d], v);
        }
    }
}
