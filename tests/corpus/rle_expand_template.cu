// shape modelled on: run-length decoding of columnar data on the GPU (nvcomp's cascaded RLE stage, cuDF's RLE decode of Parquet and ORC columns: runs given by their values and the inclusive prefix sums of their lengths, run_ends[r] one past run r's last output, so output i takes the value of the first run whose end lies above i, found by binary search; outputs past the last end repeat the last run), templated on the element type with explicit instantiations, a grid-stride loop over the output, written from scratch for kt-tui's corpus
template <typename T>
__global__ void rle_expand(const T *run_values, const int *run_ends, int nruns, T *out, int nout)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nout; i += gridDim.x * blockDim.x) {
        int lo = 0;
        int hi = nruns - 1;
        while (lo < hi) {
            const int mid = (lo + hi) / 2;
            if (run_ends[mid] > i)
                hi = mid;
            else
                lo = mid + 1;
        }
        out[i] = run_values[lo];
    }
}

template __global__ void rle_expand<unsigned char>(const unsigned char *, const int *, int, unsigned char *, int);
template __global__ void rle_expand<short>(const short *, const int *, int, short *, int);
template __global__ void rle_expand<int>(const int *, const int *, int, int *, int);
template __global__ void rle_expand<double>(const double *, const int *, int, double *, int);
