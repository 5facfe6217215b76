// shape modelled on: the Hardy-Weinberg equilibrium test of GWAS quality control (PLINK's --hardy chi-square form, as GPU ports of variant QC compute it): a thread per SNP, one genotype code a byte per sample (0 homozygous reference, 1 heterozygous, 2 homozygous alternate, 3 missing), SNP rows ld bytes apart, the called samples counted, expected counts from the reference allele's frequency, the one-degree-of-freedom chi-square written (0 for a monomorphic SNP or one with no calls) with the called count, written from scratch for kt-tui's corpus
__global__ void hwe_chisq(const unsigned char *geno, int nsnp, int nsamples, int ld, float *chisq, int *ncalled)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nsnp)
        return;
    const unsigned char *g = geno + (size_t)s * ld;
    int n0 = 0, n1 = 0, n2 = 0;
    for (int i = 0; i < nsamples; ++i) {
        const unsigned char c = g[i];
        n0 += c == 0;
        n1 += c == 1;
        n2 += c == 2;
    }
    const int n = n0 + n1 + n2;
    ncalled[s] = n;
    float x = 0.0f;
    if (n > 0) {
        const float p = (2.0f * n0 + n1) / (2.0f * n);
        const float q = 1.0f - p;
        const float e0 = n * p * p, e1 = 2.0f * n * p * q, e2 = n * q * q;
        if (e0 > 0.0f && e2 > 0.0f)
            x = (n0 - e0) * (n0 - e0) / e0 + (n1 - e1) * (n1 - e1) / e1 + (n2 - e2) * (n2 - e2) / e2;
    }
    chisq[s] = x;
}
