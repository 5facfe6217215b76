// shape modelled on: one propagation sweep of iterative connected-component labelling (the label-equivalence / min-label propagation of Hawick, Leist and Playne's GPU CCL, OpenCV's cv::cuda::connectedComponents and cuCIM's label before union-find): a thread per pixel of a byte foreground mask, the minimum label over the pixel and its 4-connected foreground neighbours written to a second buffer (background keeps its label), a device flag raised when a label dropped, mask and labels in rows pitch elements apart, written from scratch for kt-tui's corpus
__global__ void ccl_propagate(const unsigned char *fg, const int *label_in, int width, int height, int pitch,
                              int *label_out, int *changed)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const size_t p = (size_t)y * pitch + x;
    const int own = label_in[p];
    int m = own;
    if (fg[p]) {
        if (x > 0 && fg[p - 1])
            m = min(m, label_in[p - 1]);
        if (x + 1 < width && fg[p + 1])
            m = min(m, label_in[p + 1]);
        if (y > 0 && fg[p - pitch])
            m = min(m, label_in[p - pitch]);
        if (y + 1 < height && fg[p + pitch])
            m = min(m, label_in[p + pitch]);
    }
    label_out[p] = m;
    if (m < own)
        *changed = 1;
}
