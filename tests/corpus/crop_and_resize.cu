// shape modelled on: TensorFlow's crop_and_resize (tf.image.crop_and_resize's GPU kernel, Mask R-CNN-style ROI crops: box b, normalised (y1, x1, y2, x2) on image box_ind[b] of an NHWC batch, is sampled bilinearly at crop_h x crop_w points spaced (y2 - y1) * (height - 1) / (crop_h - 1) apart, points off the image set to extrapolation_value), a grid-stride loop over every output element, written from scratch for kt-tui's corpus
__global__ void crop_and_resize(const float *image, int batch, int height, int width, int depth, const float *boxes,
                                const int *box_ind, int num_boxes, int crop_h, int crop_w, float extrapolation_value,
                                float *crops)
{
    const int total = num_boxes * crop_h * crop_w * depth;
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += blockDim.x * gridDim.x) {
        const int d = idx % depth;
        const int x = (idx / depth) % crop_w;
        const int y = (idx / depth / crop_w) % crop_h;
        const int b = idx / depth / crop_w / crop_h;
        const int img = box_ind[b];
        if (img < 0 || img >= batch)
            continue;
        const float y1 = boxes[4 * b], x1 = boxes[4 * b + 1], y2 = boxes[4 * b + 2], x2 = boxes[4 * b + 3];
        const float in_y = crop_h > 1 ? y1 * (height - 1) + y * (y2 - y1) * (height - 1) / (crop_h - 1)
                                      : 0.5f * (y1 + y2) * (height - 1);
        const float in_x = crop_w > 1 ? x1 * (width - 1) + x * (x2 - x1) * (width - 1) / (crop_w - 1)
                                      : 0.5f * (x1 + x2) * (width - 1);
        if (in_y < 0 || in_y > height - 1 || in_x < 0 || in_x > width - 1) {
            crops[idx] = extrapolation_value;
            continue;
        }
        const int y0 = (int)floorf(in_y), yb = (int)ceilf(in_y);
        const int x0 = (int)floorf(in_x), xb = (int)ceilf(in_x);
        const float fy = in_y - y0, fx = in_x - x0;
        const float *im = image + (size_t)img * height * width * depth;
        const float tl = im[((size_t)y0 * width + x0) * depth + d], tr = im[((size_t)y0 * width + xb) * depth + d];
        const float bl = im[((size_t)yb * width + x0) * depth + d], br = im[((size_t)yb * width + xb) * depth + d];
        const float top = tl + (tr - tl) * fx;
        const float bottom = bl + (br - bl) * fx;
        crops[idx] = top + (bottom - top) * fy;
    }
}
