// shape modelled on: NPP / OpenCV cv::cuda image kernels that step between rows by a per-image step (nppiTranspose-style: src rows src_step elements apart, dst rows dst_step apart), written from scratch for kt-tui's corpus
__global__ void transpose_step(float *dst, int dst_step, const float *src, int src_step, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        dst[x * dst_step + y] = src[y * src_step + x];
}
