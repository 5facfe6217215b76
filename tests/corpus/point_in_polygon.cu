// shape modelled on: KernelTuner/kernel_tuner examples/cuda/pnpoly.cu (crossing-number test, vertices as x,y pairs), written from scratch for kt-tui's corpus
__global__ void point_in_polygon(int *inside, const float *px, const float *py, const float *vertices, int npoints, int nv)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < npoints) {
        float x = px[i], y = py[i];
        int c = 0;
        for (int k = 0, l = nv - 1; k < nv; l = k++) {
            float xk = vertices[2 * k], yk = vertices[2 * k + 1];
            float xl = vertices[2 * l], yl = vertices[2 * l + 1];
            if (((yk > y) != (yl > y)) && (x < (xl - xk) * (y - yk) / (yl - yk) + xk))
                c = !c;
        }
        inside[i] = c;
    }
}
