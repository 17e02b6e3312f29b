/* ee.c: cli/ee, Empirical Explainers from the command line, without
 * Octave: the gateways' work on .mat files (see `ee --help`), and under
 * mpirun / srun the row-parallel commands spread over the ranks. This file
 * owns the command table, the top-level help and the exit status. */
#include "common.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    EeCommandFn fn;
    const char *what;
} commands[] = {
    {"train", ee_cmd_train, "train a classifier (ee_train (spec, X, y))"},
    {"train-explainer", ee_cmd_train_explainer, "train an Empirical Explainer (ee_train (classifier, X, A))"},
    {"predict", ee_cmd_predict, "labels and logits of a classifier (ee_predict)"},
    {"ig", ee_cmd_ig, "Integrated Gradients / X-Gradient maps (ee_ig)"},
    {"sv", ee_cmd_sv, "Shapley Value Sampling maps (ee_sv)"},
    {"explain", ee_cmd_explain, "maps of an Empirical Explainer or an ensemble (ee_explain)"},
    {"gradient", ee_cmd_gradient, "saliency, gradient x input, IG, GradientSHAP, noise tunnel maps (ee_gradient)"},
    {"faithfulness", ee_cmd_faithfulness, "comprehensiveness, sufficiency, deletion / insertion AUC of maps (ee_faithfulness)"},
    {"occlusion", ee_cmd_occlusion, "occlusion with windows and strides, feature ablation maps (ee_occlusion)"},
    {"lime", ee_cmd_lime, "LIME maps (ee_lime); KernelSHAP is ee sv --method kernelshap"},
};
#define NCOMMANDS ((int)(sizeof commands / sizeof *commands))

/* The exit status says what kind of failure it was (the Octave id). */
static int exit_status(EeStatus st)
{
    switch (st) {
    case EE_OK: return 0;
    case EE_ERR_INPUT: return 2;
    case EE_ERR_MODEL: return 3;
    case EE_ERR_IO: return 4;
    case EE_ERR_NODEVICE: return 5;
    case EE_ERR_NOMEM: return 6;
    case EE_ERR_UNSUPPORTED: return 7;
    case EE_ERR_INTERRUPTED: return 8;
    }
    return 1;
}

/* An error is one line on stderr, whatever it quotes: a name or value
 * given with a newline or another control character in it is shown
 * escaped (\n, \xHH). */
static void say_error(const char *who, const char *msg)
{
    fputs(who, stderr);
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        if (*p == '\n') fputs("\\n", stderr);
        else if (*p == '\r') fputs("\\r", stderr);
        else if (*p == '\t') fputs("\\t", stderr);
        else if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
        else fputc(*p, stderr);
    }
    fputc('\n', stderr);
}

static void help(FILE *f)
{
    fprintf(f, "usage: ee COMMAND [--option VALUE ...]\n"
               "       ee COMMAND --help      the options of a command\n"
               "       ee --version           version, MPI and CUDA support\n\n"
               "Empirical Explainers from the command line: the Octave gateways' work on .mat files\n"
               "(models as ee_train returns them, data in the layout of doc/API.md, maps N x T single).\n"
               "Every gateway option has the same name here (--steps 20 for 'steps', 20).\n\n"
               "Commands:\n");
    for (int i = 0; i < NCOMMANDS; i++) fprintf(f, "  %-16s %s\n", commands[i].name, commands[i].what);
    fprintf(f, "\nUnder mpirun -np K (or srun) predict, ig, sv, explain, gradient, faithfulness, occlusion and lime split the rows across the\n"
               "ranks (one GPU per rank on multi-GPU nodes), checkpoint as they go and resume when\n"
               "restarted; the result is the one a single process writes.\n\n"
               "Progress goes to stderr (--quiet silences it); an error is one line on stderr.\n"
               "Exit status: 0 done, 2 bad input (ee:badInput), 3 bad model (ee:badModel), 4 I/O\n"
               "(ee:ioError), 5 no device (ee:noDevice), 6 out of memory, 7 not supported.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        say_error("ee: ", "no command given (commands: train, train-explainer, predict, ig, sv, explain, gradient, faithfulness, occlusion, lime; see ee --help)");
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        help(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("ee (Empirical Explainers) %s\nMPI: %s\nCUDA: %s\n", PACKAGE_VERSION, ee_par_describe(),
               ee_device_describe());
        return 0;
    }
    int c = -1;
    for (int i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name)) c = i;
    if (c < 0) {
        char msg[1024];
        snprintf(msg, sizeof msg, "unknown command '%.200s' (commands: train, train-explainer, predict, ig, sv, "
                 "explain, gradient, faithfulness, occlusion, lime; see ee --help)", argv[1]);
        say_error("ee: ", msg);
        return 2;
    }
    char who[64];
    snprintf(who, sizeof who, "ee %s: ", commands[c].name);
    EePar par;
    EeStatus st = ee_par_init(&argc, &argv, &par);
    if (st) {
        if (par.rank == 0) say_error(who, ee_last_error());
        return exit_status(st);
    }
    /* libcore's threads are OpenMP's; OpenBLAS runs single-threaded inside */
    ee_par_threads(&par);
    ee_threads_enter();
    st = commands[c].fn(argc - 2, argv + 2, &par);
    ee_threads_leave();
    if (st && par.rank == 0) say_error(who, ee_last_error());
    ee_shutdown();
    ee_par_finalize(&par);
    return exit_status(st);
}
