// shape modelled on: Rodinia nn (distance of every record's latitude/longitude pair to one target point), written from scratch for kt-tui's corpus
struct LatLong {
    float lat;
    float lng;
};

__global__ void euclid(const LatLong *locations, float *distances, int nrecords, float lat, float lng)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < nrecords) {
        float dlat = lat - locations[gid].lat;
        float dlng = lng - locations[gid].lng;
        distances[gid] = sqrtf(dlat * dlat + dlng * dlng);
    }
}
