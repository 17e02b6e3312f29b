/* cnn_table.h: the subset tables of a cnn's convolution windows for
 * coalitions on the CPU (cnn_table.c). In a coalition's copy of a row
 * every position holds the row's own token or the baseline's, so the
 * pre-activations of a window of width w depend on its w presence bits
 * alone: a table of the 2^w possible windows per position, built once per
 * row, turns each window of each coalition into one row read
 * (cnn_coalitions.c; the cnn's occlusion, coalition_model.c). */
#ifndef EE_CNN_TABLE_H
#define EE_CNN_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* The widest window with a table (2^w rows of F floats per position). On
 * the bench's cnn (widths 3, 4, 5, F 100, LIME's coalitions, one thread)
 * the values took 26.5 ms without tables, 22.2 with width 3's, 18.5 with
 * widths 3 and 4, 15.8 with all three; wider windows (64 rows and more
 * per position) are not measured and keep the difference rows of
 * cnn_coalitions.c. */
#define EE_CNN_TABLE_WMAX 5
/* A width's table of one row is kept under this many bytes (else that
 * width keeps the difference rows), so that long rows with many filters
 * do not trade a few additions for memory the size of the model. */
#define EE_CNN_TABLE_BYTES ((size_t)16 << 20)

/* Floats of width w's table for positions up to T and F filters; 0 where
 * width w keeps the difference rows (wider than the limit, or too big). */
size_t ee_cnn_table_floats(int w, int T, int F);
/* Tests: the widest window with a table, to reach both paths on one model
 * (0: none; -1: EE_CNN_TABLE_WMAX, the default), and `always`: every row
 * reads its tables, also where its coalitions read too few windows for the
 * table to pay (cnn_coalitions.c; 0: the default). Not to be called while
 * a call runs. */
void ee_cnn_table_set(int wmax, int always);
/* Whether rows read their tables wherever they have them (tests). */
int ee_cnn_table_always(void);

/* Bits t .. t+63 of the presence bits pb (one zero word past the end). */
static inline uint64_t ee_cnn_bits_at(const uint64_t *pb, int t)
{
    int q = t >> 6, r = t & 63;
    uint64_t lo = pb[q] >> r;
    return r ? lo | pb[q + 1] << (64 - r) : lo;
}

/* Width w's table tab of a row of active length L from its difference
 * rows D [L][w][F] (D[p][o]: the change of offset o's term when position
 * p turns present) and each window all present Xs [L][F] and all absent
 * Bs [L][F]. Row mask of window t (bit o: position t + o present; the nj
 * = min (w, L - t) positions before L) holds the chain that the
 * difference rows give (cnn_coalitions.c): with at most nj / 2 bits set,
 * Bs[t] plus the rows D of the present offsets in increasing order, else
 * Xs[t] minus those of the absent ones in increasing order. Each row is
 * built from the row one addition shorter, so the same bits. */
void ee_cnn_table_build(float *tab, const float *D, const float *Xs, const float *Bs, int L, int w, int F);
/* Each filter's maximum over the attended windows t0 .. t1 (mask[t]; t1 <
 * L) that the presence bits pb select (bits past L zero), into best [F]
 * (-inf where none; a NaN never wins). */
void ee_cnn_table_max(const float *tab, const uint64_t *pb, const uint8_t *mask, int t0, int t1, int w, int F,
                      float *best);
/* Row of window t for the presence bits pb. */
static inline const float *ee_cnn_table_row(const float *tab, const uint64_t *pb, int t, int w, int F)
{
    size_t Fp = ((size_t)F + 15) & ~(size_t)15;
    return tab + (((size_t)t << w) + (ee_cnn_bits_at(pb, t) & ((1u << w) - 1))) * Fp;
}

#endif
