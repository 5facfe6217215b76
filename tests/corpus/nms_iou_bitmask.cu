// shape modelled on: the overlap-mask pass of GPU non-maximum suppression (torchvision's nms_kernel, mmcv's nms: boxes sorted by score, split into tiles of 64, one block per (row tile, column tile) whose 64 threads each test their row box against the column tile's boxes staged in shared memory and set bit k of a 64-bit word where a later box k overlaps with IoU above the threshold; a host loop then walks the words), boxes float4 (x1, y1, x2, y2), ceil(n / 64) words per box, written from scratch for kt-tui's corpus
#define TPB 64

__global__ void nms_mask(const float4 *boxes, int n, float iou_threshold, unsigned long long *mask)
{
    __shared__ float4 tile[TPB];
    const int col_blocks = (n + TPB - 1) / TPB;
    const int row0 = blockIdx.y * TPB;
    const int col0 = blockIdx.x * TPB;
    if (row0 >= n || col0 >= n)
        return;
    const int rows = min(n - row0, TPB);
    const int cols = min(n - col0, TPB);
    if (threadIdx.x < cols)
        tile[threadIdx.x] = boxes[col0 + threadIdx.x];
    __syncthreads();
    if (threadIdx.x >= rows)
        return;
    const int i = row0 + threadIdx.x;
    const float4 a = boxes[i];
    const float area_a = (a.z - a.x) * (a.w - a.y);
    unsigned long long bits = 0;
    for (int k = 0; k < cols; ++k) {
        if (col0 + k <= i)
            continue;
        const float4 b = tile[k];
        const float iw = fmaxf(0.0f, fminf(a.z, b.z) - fmaxf(a.x, b.x));
        const float ih = fmaxf(0.0f, fminf(a.w, b.w) - fmaxf(a.y, b.y));
        const float inter = iw * ih;
        const float uni = area_a + (b.z - b.x) * (b.w - b.y) - inter;
        if (inter > iou_threshold * uni)
            bits |= 1ull << k;
    }
    mask[(size_t)i * col_blocks + blockIdx.x] = bits;
}
