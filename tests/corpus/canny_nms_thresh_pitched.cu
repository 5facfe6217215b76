// shape modelled on: the non-maximum suppression and double threshold of the Canny edge detector (OpenCV's cv::cuda::createCannyEdgeDetector calcMap, NPP's nppiFilterCannyBorder, cuCIM's canny): a thread per pixel, the gradient dx, dy (shorts, rows grad_step elements apart) and its magnitude (floats, rows mag_step apart), the direction put in one of four sectors by tan(22.5) and tan(67.5) comparisons, a pixel kept where its magnitude is not below its two neighbours across the edge, 2 (strong) at or above high_thresh, 1 (weak) above low_thresh, else 0, the one-pixel border 0, bytes rows map_step apart, written from scratch for kt-tui's corpus
__global__ void canny_nms_map(const short *dx, const short *dy, int grad_step, const float *mag, int mag_step,
                              int width, int height, float low_thresh, float high_thresh, unsigned char *map,
                              int map_step)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    unsigned char v = 0;
    if (x > 0 && y > 0 && x < width - 1 && y < height - 1) {
        const float *row = mag + (size_t)y * mag_step;
        const float m = row[x];
        if (m > low_thresh) {
            const int gx = dx[(size_t)y * grad_step + x];
            const int gy = dy[(size_t)y * grad_step + x];
            const float ax = fabsf((float)gx);
            const float ay = fabsf((float)gy);
            float n1, n2;
            if (ay < 0.41421356f * ax) {
                n1 = row[x - 1];
                n2 = row[x + 1];
            } else if (ay > 2.41421356f * ax) {
                n1 = row[x - mag_step];
                n2 = row[x + mag_step];
            } else {
                const int s = (gx ^ gy) < 0 ? -1 : 1;
                n1 = row[x - mag_step - s];
                n2 = row[x + mag_step + s];
            }
            if (m > n1 && m >= n2)
                v = m >= high_thresh ? 2 : 1;
        }
    }
    map[(size_t)y * map_step + x] = v;
}
