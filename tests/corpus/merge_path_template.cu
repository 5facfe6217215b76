// shape modelled on: merge-path merging of two sorted arrays (Green, McColl and Bader's "GPU Merge Path", as ModernGPU's merge and Thrust's merge partition the output: output element k comes from the split (i, k - i) of the cross diagonal k, found by a binary search for the first i with a[i] > b[k - 1 - i]; ties go to a, so the merge is stable), templated on the key type with explicit instantiations, one thread per output element, written from scratch for kt-tui's corpus
template <typename T>
__global__ void merge_path(const T *a, int na, const T *b, int nb, T *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= na + nb)
        return;
    int lo = max(0, k - nb);
    int hi = min(k, na);
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (a[mid] <= b[k - 1 - mid])
            lo = mid + 1;
        else
            hi = mid;
    }
    const int j = k - lo;
    out[k] = j >= nb || (lo < na && a[lo] <= b[j]) ? a[lo] : b[j];
}

template __global__ void merge_path<int>(const int *, int, const int *, int, int *);
template __global__ void merge_path<float>(const float *, int, const float *, int, float *);
template __global__ void merge_path<double>(const double *, int, const double *, int, double *);
template __global__ void merge_path<unsigned long long>(const unsigned long long *, int, const unsigned long long *,
                                                        int, unsigned long long *);
