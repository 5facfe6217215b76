// shape modelled on: the update of a count-min sketch (Cormode and Muthukrishnan; the CMS.INCRBY of RedisBloom and the GPU sketches of network telemetry and streaming heavy-hitter codes): DEPTH rows of width counters, a template parameter with explicit instantiations; each key, a uint32 with its weight, is hashed per row by the multiply-add hash (seeds a_d, b_d in an array of 2 * DEPTH) and its weight added by atomicAdd into that row's counter; a grid-stride loop over n keys, written from scratch for kt-tui's corpus
template <int DEPTH>
__global__ void cms_update(const unsigned int *keys, const unsigned int *weights, int n, const unsigned int *seeds, int width, unsigned int *sketch)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned int k = keys[i];
        const unsigned int w = weights[i];
#pragma unroll
        for (int d = 0; d < DEPTH; ++d) {
            const unsigned int h = seeds[2 * d] * k + seeds[2 * d + 1];
            atomicAdd(&sketch[(size_t)d * width + (h ^ (h >> 16)) % width], w);
        }
    }
}

template __global__ void cms_update<4>(const unsigned int *, const unsigned int *, int, const unsigned int *, int, unsigned int *);
template __global__ void cms_update<8>(const unsigned int *, const unsigned int *, int, const unsigned int *, int, unsigned int *);
