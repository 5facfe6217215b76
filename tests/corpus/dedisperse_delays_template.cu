// shape modelled on: direct incoherent dedispersion of a filterbank (dedisp's and Heimdall's GPU dedispersers, AstroAccelerate's and PRESTO's direct kernels): template <typename T> over the input sample type with unsigned char (8-bit filterbanks) and float instantiated, a 2-D grid with x over the output samples and y over the trial DMs, channel c's samples in_stride apart, the delay table delays[dm * nchans + c] in samples, the sum over channels of in[c][t + delay] written to rows out_stride apart, written from scratch for kt-tui's corpus
template <typename T>
__global__ void dedisperse_direct(const T *in, int in_stride, int nchans, const int *delays, int ndms, int nsamps_out,
                                  float *out, int out_stride)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int dm = blockIdx.y * blockDim.y + threadIdx.y;
    if (t >= nsamps_out || dm >= ndms)
        return;
    const int *d = delays + (size_t)dm * nchans;
    float sum = 0.0f;
    for (int c = 0; c < nchans; ++c)
        sum += (float)in[(size_t)c * in_stride + t + d[c]];
    out[(size_t)dm * out_stride + t] = sum;
}

template __global__ void dedisperse_direct<unsigned char>(const unsigned char *, int, int, const int *, int, int,
                                                          float *, int);
template __global__ void dedisperse_direct<float>(const float *, int, int, const int *, int, int, float *, int);
