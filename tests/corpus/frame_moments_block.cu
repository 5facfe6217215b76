// shape modelled on: per-frame intensity moments of microscopy / astronomy pipelines (OpenCV cv::moments' m00, m10, m01 and scikit-image regionprops' weighted centroid over 16-bit frames, with the column profile beside them), one block per frame of a stack whose frames lie `frame_stride` pixels apart with rows `pitch` pixels apart, written from scratch for kt-tui's corpus
#define MAX_THREADS 512
__global__ void frame_moments(const unsigned short *frames, int width, int height, int pitch, long long frame_stride,
                              int nframes, unsigned int *col_sum, float2 *centroid)
{
    __shared__ double s_m[MAX_THREADS];
    __shared__ double s_mx[MAX_THREADS];
    __shared__ double s_my[MAX_THREADS];
    const int f = blockIdx.x;
    if (f >= nframes)
        return;
    const unsigned short *img = frames + f * frame_stride;
    double m = 0.0, mx = 0.0, my = 0.0;
    for (int x = threadIdx.x; x < width; x += blockDim.x) {
        unsigned int col = 0;
        double wy = 0.0;
        for (int y = 0; y < height; y++) {
            const unsigned int v = img[(size_t)y * pitch + x];
            col += v;
            wy += (double)v * y;
        }
        col_sum[(size_t)f * width + x] = col;
        m += col;
        mx += (double)col * x;
        my += wy;
    }
    s_m[threadIdx.x] = m;
    s_mx[threadIdx.x] = mx;
    s_my[threadIdx.x] = my;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            s_m[threadIdx.x] += s_m[threadIdx.x + s];
            s_mx[threadIdx.x] += s_mx[threadIdx.x + s];
            s_my[threadIdx.x] += s_my[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        centroid[f] = make_float2(s_mx[0] / s_m[0], s_my[0] / s_m[0]);
}
