/* spd_solve.c: the symmetric positive definite solve that KernelSHAP's
 * and LIME's least-squares fits share (coalition.h), in double, by
 * Cholesky factorisation; a matrix that is not positive definite to a
 * relative 1e-10 of its largest diagonal element is refused (-1), so a
 * design that does not determine the values is reported, not solved. */
#include "coalition.h"

#include <math.h>
#include <stddef.h>

int ee_spd_solve(int n, double *G, double *r)
{
    double dmax = 0;
    for (int i = 0; i < n; i++)
        if (G[(size_t)i * n + i] > dmax) dmax = G[(size_t)i * n + i];
    if (n > 0 && !(dmax > 0)) return -1;
    double tol = 1e-10 * dmax;
    /* G = L L^T, L in the lower triangle */
    for (int j = 0; j < n; j++) {
        double d = G[(size_t)j * n + j];
        for (int k = 0; k < j; k++) d -= G[(size_t)j * n + k] * G[(size_t)j * n + k];
        if (!(d > tol)) return -1;
        d = sqrt(d);
        G[(size_t)j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double s = G[(size_t)i * n + j];
            for (int k = 0; k < j; k++) s -= G[(size_t)i * n + k] * G[(size_t)j * n + k];
            G[(size_t)i * n + j] = s / d;
        }
    }
    for (int i = 0; i < n; i++) { /* L y = r */
        double s = r[i];
        for (int k = 0; k < i; k++) s -= G[(size_t)i * n + k] * r[k];
        r[i] = s / G[(size_t)i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) { /* L^T u = y */
        double s = r[i];
        for (int k = i + 1; k < n; k++) s -= G[(size_t)k * n + i] * r[k];
        r[i] = s / G[(size_t)i * n + i];
    }
    return 0;
}
