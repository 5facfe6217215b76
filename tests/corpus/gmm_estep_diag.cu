// shape modelled on: the E-step of a Gaussian mixture with diagonal covariances (scikit-learn's GaussianMixture with covariance_type = "diag" in _estimate_log_gaussian_prob and _estimate_log_prob_resp, OpenCV's cv::ml::EM with COV_MAT_DIAGONAL, the GPU GMM codes of speaker-recognition toolkits): a thread per point of dim floats, K = 8 components (a #define) each with a log weight, a mean row and a variance row, the log-densities kept in a local array, responsibilities by a log-sum-exp and the point's log-likelihood written, written from scratch for kt-tui's corpus
#define K 8

__global__ void gmm_estep(const float *x, int n, int dim, const float *means, const float *vars, const float *logw,
                          float *resp, float *loglik)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float *xi = x + (size_t)i * dim;
    float lp[K];
    float top = -3.0e38f;
    for (int k = 0; k < K; ++k) {
        const float *mu = means + (size_t)k * dim;
        const float *var = vars + (size_t)k * dim;
        float acc = logw[k];
        for (int d = 0; d < dim; ++d) {
            const float diff = xi[d] - mu[d];
            acc -= 0.5f * (diff * diff / var[d] + logf(6.28318531f * var[d]));
        }
        lp[k] = acc;
        top = fmaxf(top, acc);
    }
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
        sum += expf(lp[k] - top);
    const float lse = top + logf(sum);
    for (int k = 0; k < K; ++k)
        resp[(size_t)i * K + k] = expf(lp[k] - lse);
    loglik[i] = lse;
}
