// shape modelled on: the exponential moving average of model weights (timm's ModelEmaV2/V3 with its warmup, BYOL's and MoCo's momentum target networks, torch.optim.swa_utils' EMA averaging): template <typename T> with float and double instantiated, a grid-stride loop over n parameters, the decay warmed up by min(decay, (1 + step) / (10 + step)), ema read and written, written from scratch for kt-tui's corpus
template <typename T>
__global__ void ema_update(T *ema, const T *param, int n, T decay, int step)
{
    const T warm = (T(1) + step) / (T(10) + step);
    const T d = decay < warm ? decay : warm;
    const T keep = T(1) - d;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const T e = ema[i];
        // e + (1 - d) * (p - e): the form that loses least when d is near 1
        ema[i] = e + keep * (param[i] - e);
    }
}

template __global__ void ema_update<float>(float *, const float *, int, float, int);
template __global__ void ema_update<double>(double *, const double *, int, double, int);
