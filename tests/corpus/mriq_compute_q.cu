// shape modelled on: Parboil mri-q's ComputeQ_GPU (one thread per voxel: Q(x) += sum over the k-space samples of phiMag * (cos, sin)(2 pi (kx x + ky y + kz z)), the voxel's Qr and Qi read, added to and written back), with the samples as float4 (kx, ky, kz, phiMag) in global memory, written from scratch for kt-tui's corpus
#define PIx2 6.2831853071795864769252867665590058f

__global__ void ComputeQ_GPU(int numK, int numX, const float4 *kVals, const float *x, const float *y, const float *z,
                             float *Qr, float *Qi)
{
    const int xIndex = blockIdx.x * blockDim.x + threadIdx.x;
    if (xIndex >= numX)
        return;
    const float sX = x[xIndex];
    const float sY = y[xIndex];
    const float sZ = z[xIndex];
    float sQr = Qr[xIndex];
    float sQi = Qi[xIndex];
    for (int kIndex = 0; kIndex < numK; kIndex++) {
        const float4 k = kVals[kIndex];
        const float expArg = PIx2 * (k.x * sX + k.y * sY + k.z * sZ);
        sQr += k.w * cosf(expArg);
        sQi += k.w * sinf(expArg);
    }
    Qr[xIndex] = sQr;
    Qi[xIndex] = sQi;
}
