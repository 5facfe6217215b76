// Fault: host code beside the kernel (a file write and a helper). kernel_tuner launches only the
// kernel, so it never runs; the review flags it for a human to look at.
#include <cstdio>

void log_launch(int n) {
    FILE *f = fopen("/tmp/kt-tui-fault-host-code.txt", "w");
    if (f) {
        fprintf(f, "%d\n", n);
        fclose(f);
    }
}

__global__ void scaled_add(float *out, const float *a, const float *b, float alpha, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) {
        out[i] = alpha * a[i] + b[i];
    }
}
