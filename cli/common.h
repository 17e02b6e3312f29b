/* common.h: what the commands of cli/ee share: their entry points, the
 * device choice (one GPU per rank), progress lines on stderr and the
 * options every command has. */
#ifndef EE_CLI_COMMON_H
#define EE_CLI_COMMON_H

#include "opts.h"
#include "par.h"

/* A command: runs with the arguments after its name; the status's
 * message is printed by main (on rank 0). */
typedef EeStatus (*EeCommandFn)(int argc, char **argv, const EePar *par);
EeStatus ee_cmd_train(int argc, char **argv, const EePar *par);
EeStatus ee_cmd_train_explainer(int argc, char **argv, const EePar *par);
EeStatus ee_cmd_predict(int argc, char **argv, const EePar *par);
EeStatus ee_cmd_ig(int argc, char **argv, const EePar *par);
EeStatus ee_cmd_sv(int argc, char **argv, const EePar *par);
EeStatus ee_cmd_explain(int argc, char **argv, const EePar *par);
EeStatus ee_cmd_faithfulness(int argc, char **argv, const EePar *par);
EeStatus ee_cmd_occlusion(int argc, char **argv, const EePar *par);
EeStatus ee_cmd_lime(int argc, char **argv, const EePar *par);
EeStatus ee_cmd_gradient(int argc, char **argv, const EePar *par);

/* Help of a command: usage lines, a paragraph and the option table. */
void ee_cmd_help(FILE *f, const char *usage, const char *about, const EeOptSpec *spec, int n);

/* --device auto|cpu|gpu, resolved; on a node with several GPUs each rank
 * takes the one of its local rank (modulo their number). --precision
 * fp32|tf32|bf16, checked against the device (ee:notSupported on the CPU). */
EeStatus ee_cli_device(const EeOpts *o, const EePar *par, EeDevice *want, EeDevice *got, EePrecision *prec);
/* --verbose / --quiet: whether progress lines are printed. */
EeStatus ee_cli_verbose(const EeOpts *o, int *verbose);

/* "ee CMD: ..." on stderr, on rank 0 only, when verbose. */
void ee_cli_say(const EePar *par, int verbose, const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* libcore's progress printer (ee_train's epochs) to stderr. */
void ee_cli_print(void *ctx, const char *line);

/* An output file, checked before the work rather than after it: a
 * non-empty name whose folder exists and is writable, naming nothing yet
 * or a regular file (never a device, FIFO, folder or link). */
EeStatus ee_cli_out_file(const char *path);

/* A required option's value, or an error naming it. */
EeStatus ee_cli_need(const EeOpts *o, const char *name, const char **value);

#endif
