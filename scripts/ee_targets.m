## -*- texinfo -*-
## @deftypefn  {} {@var{A} =} ee_targets (@var{model}, @var{X}, @var{method}, @dots{})
## @deftypefnx {} {[@var{A}, @var{info}] =} ee_targets (@dots{})
## Attribution maps of many rows (an explainer's training targets) on all
## cores of a machine or on a cluster.
##
## @var{method} is @qcode{'ig'} or @qcode{'sv'}: the result is the one of
## @code{ee_ig (@var{model}, @var{X}, @dots{})} or @code{ee_sv (@var{model},
## @var{X}, @dots{})} (up to float rounding, and bit for bit once the CPU
## arithmetic does not depend on the batch: SV's random streams are keyed by
## the row's index in @var{X}).  With @qcode{'ranks'} 1 (the default) it
## runs those gateways in this process; with K > 1 it runs the command-line
## tool @code{ee} (cli/ee) under an MPI launcher with K ranks, which share
## the rows by their cost, checkpoint as they go and write one file that
## this function reads back.
##
## Options of the method, passed on under the same names: @qcode{'steps'},
## @qcode{'method'}, @qcode{'baseline'} (@qcode{'pad'}, @qcode{'zero'}),
## @qcode{'target'} (@qcode{'argmax'}, a class, or N x 1 classes)
## for IG; @qcode{'samples'}, @qcode{'seed'}, @qcode{'baseline'}
## (@qcode{'pad'}), @qcode{'target'} for SV; @qcode{'batch'},
## @qcode{'device'}, @qcode{'verbose'}, @qcode{'incremental'} for both.
## Options of the run:
## @table @asis
## @item 'ranks'
## K, the number of processes (default 1: in this process).
## @item 'launcher'
## the command that starts K ranks, called as @code{LAUNCHER -n K ee @dots{}}
## (default @qcode{'mpirun'}); e.g. @qcode{'srun'} inside a Slurm
## allocation, or @qcode{'mpirun --allow-run-as-root --oversubscribe'}.
## @item 'threads'
## OpenMP threads per rank (default: as the launcher sets them up; Open MPI
## binds each rank to a core).
## @item 'folder'
## where the model, the rows, the shards and the result go (default: a
## temporary folder, removed at the end).  A run that stopped midway,
## called again with the same folder and arguments, computes only the rows
## that are missing.  It must be seen by every rank.
## @item 'chunk'
## rows per checkpointed chunk (default: the tool's, 16 for SV, 64 for IG).
## @item 'program'
## the @code{ee} program (default: cli/ee of this tree, else the installed
## one, else @code{ee} on the PATH).
## @end table
##
## @var{info} is the info struct of @code{ee_ig} / @code{ee_sv}.  Errors of
## the tool come back with its message and the matching @code{ee:} id.
##
## Example (SV targets of 2000 rows on 8 ranks):
## @example
## A = ee_targets (clf, X, 'sv', 'samples', 20, 'ranks', 8);
## expl = ee_train (clf, X, A);
## @end example
## @seealso{ee_sv, ee_ig, ee_train}
## @end deftypefn
function [A, info] = ee_targets (model, X, method, varargin)
  if (nargin < 3)
    print_usage ();
  end
  method = ee_check ('ee_targets', 'METHOD', method, 'choice', {'ig', 'sv'});
  [run, passed] = split_options (method, varargin);
  if (run.ranks == 1)
    if (strcmp (method, 'ig'))
      [A, info] = ee_ig (model, X, passed{:});
    else
      [A, info] = ee_sv (model, X, passed{:});
    end
    return;
  end
  [A, info] = run_tool (model, X, method, run, passed);
end

## The options of the run, and those passed to the method (as pairs).
function [run, passed] = split_options (method, args)
  if (mod (numel (args), 2))
    error ('ee:badInput', 'ee_targets: options must come in name/value pairs');
  end
  run = struct ('ranks', 1, 'launcher', 'mpirun', 'threads', 0, 'folder', '', 'chunk', 0, 'program', '');
  known = {'steps', 'method', 'baseline', 'target', 'samples', 'seed', 'batch', 'device', 'verbose', ...
           'incremental'};
  passed = {};
  for k = 1:2:numel (args)
    name = args{k};
    value = args{k + 1};
    if (! (ischar (name) && isrow (name) && all (name > 0 & name < 128)))
      error ('ee:badInput', 'ee_targets: option names are ASCII char rows, argument %d is not', k + 3);
    end
    name = lower (name);
    switch (name)
      case 'ranks'    # as many ranks as a launcher may start, a finite number
        run.ranks = ee_check ('ee_targets', "'ranks'", value, 'int', 1, 65536);
      case {'threads', 'chunk'}
        run.(name) = ee_check ('ee_targets', ["'" name "'"], value, 'int', 0, 2^24);
      case {'launcher', 'program'}
        run.(name) = ee_check ('ee_targets', ["'" name "'"], value, 'text');
      case 'folder'
        run.folder = ee_check ('ee_targets', "'folder'", value, 'text');
        if (! isempty (run.folder) && exist (run.folder, 'file') && ! isfolder (run.folder))
          error ('ee:badInput', "ee_targets: 'folder' (%s) is a file, not a folder", run.folder);
        end
      case known
        passed(end + 1:end + 2) = {name, value};
      otherwise
        error ('ee:badInput', "ee_targets: unknown option '%s' (the run: ranks, launcher, threads, folder, chunk, program; %s: %s)", ...
               name, method, strjoin (known, ', '));
    end
  end
end

function s = ifelse_str (c, a, b)
  if (c) s = a; else s = b; end
end

## K ranks of the command-line tool on files in a folder.
function [A, info] = run_tool (model, X, method, run, passed)
  prog = find_program (run.program);
  if (! isstruct (model) || ! isscalar (model))
    error ('ee:badModel', 'ee_targets: MODEL must be a model struct (as ee_train returns it)');
  end
  if (! isnumeric (X) || ndims (X) != 2)
    error ('ee:badInput', 'ee_targets: X must be an N x T int32 matrix of token ids');
  end
  folder = run.folder;
  own = isempty (folder);
  if (own)
    folder = tempname ();
  end
  if (! exist (folder, 'dir') && ! mkdir (folder))
    error ('ee:ioError', 'ee_targets: cannot create the folder %s', folder);
  end
  cleanup = onCleanup (@() remove_folder (folder, own));
  mfile = fullfile (folder, 'model.mat');
  dfile = fullfile (folder, 'rows.mat');
  out = fullfile (folder, ['targets_' method '.mat']);
  log = fullfile (folder, 'ee.log');
  ## what the tool reads (rewritten each call: the tool's shards are keyed
  ## by their content, so a resumed run still finds its chunks)
  save ('-v7', mfile, 'model');
  [args, data] = tool_args (passed, rows (X));
  data.tokens = X;
  save ('-v7', dfile, '-struct', 'data');
  unlink_quiet (out);
  if (run.chunk > 0)
    args = [args sprintf(' --chunk %d', run.chunk)];
  end
  cmd = sprintf ('%s -n %d %s %s --model %s --data %s --out %s%s', run.launcher, run.ranks, ...
                 quote (prog), method, quote (mfile), quote (dfile), quote (out), args);
  if (run.threads > 0)
    cmd = sprintf ('OMP_NUM_THREADS=%d %s', run.threads, cmd);
  end
  ## the tool's lines reach the terminal as they come (tee) and the log,
  ## whose last "ee ..." line is the error message if it fails
  script = fullfile (folder, 'run.sh');
  fid = fopen (script, 'w');
  fprintf (fid, 'set -o pipefail\n%s 2>&1 | tee %s >&2\n', cmd, quote (log));
  fclose (fid);
  status = system (['bash ' quote(script)]);
  if (status != 0 || ! exist (out, 'file'))
    [id, msg] = tool_error (status, log);
    error (id, 'ee_targets: %s', msg);
  end
  r = load (out);
  A = r.A;
  info = r.info;
end

## Command-line arguments for the method's options; numeric target or
## baseline matrices travel as variables of the rows file (fields of data).
function [args, data] = tool_args (passed, N)
  args = '';
  data = struct ();
  for k = 1:2:numel (passed)
    name = passed{k};
    value = passed{k + 1};
    if (any (strcmp (name, {'target', 'baseline'})) && ! ischar (value))
      if (strcmp (name, 'target') && isscalar (value) && N != 1)
        args = [args sprintf(' --target %d', value)];
        continue;
      end
      data.([name '_rows']) = value;
      args = [args sprintf(' --%s %s_rows', name, name)];
    elseif (ischar (value))
      args = [args sprintf(' --%s %s', name, quote (value))];
    elseif ((islogical (value) || isnumeric (value)) && isscalar (value))
      if (islogical (value) || any (strcmp (name, {'verbose', 'incremental'})))
        args = [args sprintf(' --%s %s', name, ifelse_str (value != 0, 'true', 'false'))];
      else
        args = [args sprintf(' --%s %.17g', name, value)];
      end
    else
      error ('ee:badInput', "ee_targets: '%s' must be a scalar or a char row here", name);
    end
  end
end

function prog = find_program (given)
  if (! isempty (given))
    prog = given;
    if (! exist (prog, 'file'))
      error ('ee:notSupported', 'ee_targets: the program %s does not exist', prog);
    end
    return;
  end
  here = fileparts (mfilename ('fullpath'));
  ## the source tree (cli/ee beside scripts/), then make install's layout
  ## (PREFIX/lib/empirical-explainers/scripts -> PREFIX/bin/ee)
  for p = {fullfile(here, '..', 'cli', 'ee'), fullfile(here, '..', '..', '..', 'bin', 'ee')}
    if (exist (p{1}, 'file'))
      prog = p{1};
      return;
    end
  end
  [st, p] = system ('command -v ee');
  if (st == 0)
    prog = strtrim (p);
    return;
  end
  error ('ee:notSupported', ['ee_targets: the command-line tool ee was not found (build it with ' ...
                             'tools/build.sh, or install it with make install), so ''ranks'' > 1 cannot run']);
end

## The tool's exit status says which error it was (ee --help).
function [id, msg] = tool_error (status, log)
  ids = {2, 'ee:badInput'; 3, 'ee:badModel'; 4, 'ee:ioError'; 5, 'ee:noDevice'; 6, 'ee:outOfMemory'; ...
         7, 'ee:notSupported'; 8, 'ee:interrupted'};
  k = find ([ids{:, 1}] == status, 1);
  if (isempty (k))
    id = 'ee:ioError';
  else
    id = ids{k, 2};
  end
  msg = sprintf ('the tool stopped with status %d (its output is above)', status);
  if (exist (log, 'file'))
    lines = strsplit (fileread (log), "\n");
    mine = lines(! cellfun (@isempty, regexp (lines, '^ee [a-z-]+: ', 'once')));
    if (! isempty (mine))
      msg = mine{end};
    end
  end
end

function s = quote (p)
  s = ['''' strrep(p, '''', '''\''''') ''''];
end

function unlink_quiet (f)
  if (exist (f, 'file'))
    delete (f);
  end
end

function remove_folder (folder, own)
  if (own && exist (folder, 'dir'))
    confirm_recursive_rmdir (false, 'local');
    rmdir (folder, 's');
  end
end

%!shared v, mpi, launcher
%! here = fileparts (which ('ee_targets'));
%! v = load (fullfile (here, '..', 'tests', 'vectors', 'transformer_tiny.mat'));
%! ## tests that start ranks need Open MPI (tools/install_deps.sh brings it)
%! ## and the tool, which the tree and make install have (an Octave package
%! ## has the gateways alone)
%! tool = '';
%! for p = {fullfile(here, '..', 'cli', 'ee'), fullfile(here, '..', '..', '..', 'bin', 'ee')}
%!   if (isempty (tool) && exist (p{1}, 'file')) tool = p{1}; end
%! end
%! [~, version] = system (['"' tool '" --version']);
%! mpi = ! isempty (tool) && isempty (strfind (version, 'MPI: none')) ...
%!       && system ('command -v mpirun > /dev/null 2>&1') == 0;
%! launcher = 'mpirun --allow-run-as-root --oversubscribe';
%! ## the tests that start ranks are testif blocks on this flag: counted as
%! ## skipped (not passed) where they cannot run, with the reason here
%! setenv ('EE_TEST_MPI', sprintf ('%d', mpi));
%! if (! mpi)
%!   if (isempty (tool))
%!     why = 'no cli/ee next to the scripts (an Octave package has the gateways alone)';
%!   elseif (! isempty (strfind (version, 'MPI: none')))
%!     why = 'cli/ee was built without MPI';
%!   else
%!     why = 'mpirun is missing';
%!   end
%!   printf ('SKIP ee_targets: the 3 tests that start ranks: %s\n', why);
%! end

%!test
%! ## one rank: the gateways themselves
%! [A, info] = ee_targets (v.model, v.X, 'sv', 'samples', 3, 'seed', 4, 'verbose', false);
%! assert (A, ee_sv (v.model, v.X, 'samples', 3, 'seed', 4, 'verbose', false));
%! assert (info.steps, 3);

%!testif ; strcmp (getenv ('EE_TEST_MPI'), '1')
%! ## two ranks of the tool: the maps of ee_sv / ee_ig (to float rounding;
%! ## tests/cli/check.sh compares ranks bit for bit)
%! S = ee_sv (v.model, v.X, 'samples', 3, 'seed', 4, 'verbose', false);
%! [A, info] = ee_targets (v.model, v.X, 'sv', 'samples', 3, 'seed', 4, 'ranks', 2, 'launcher', launcher, ...
%!                         'threads', 1, 'chunk', 1, 'verbose', false);
%! assert (class (A), 'single');
%! assert (A, S, 1e-5 * max (abs (S(:))));
%! assert (info.steps, 3);
%! assert (info.target, double (ee_predict (v.model, v.X)));
%! I = ee_ig (v.model, v.X, 'steps', 5, 'verbose', false);
%! J = ee_targets (v.model, v.X, 'ig', 'steps', 5, 'ranks', 2, 'launcher', launcher, 'verbose', false);
%! assert (J, I, 1e-5 * max (abs (I(:))));

%!testif ; strcmp (getenv ('EE_TEST_MPI'), '1')
%! ## a folder of its own keeps the shards of a stopped run; target classes
%! ## travel as a variable
%! f = tempname ();
%! t = ones (rows (v.X), 1);
%! A = ee_targets (v.model, v.X, 'ig', 'steps', 4, 'target', t, 'ranks', 2, 'launcher', launcher, ...
%!                 'folder', f, 'verbose', false);
%! assert (A, ee_ig (v.model, v.X, 'steps', 4, 'target', t, 'verbose', false), 1e-5);
%! assert (exist (f, 'dir'), 7);
%! confirm_recursive_rmdir (false, 'local');
%! rmdir (f, 's');

%!error <METHOD> ee_targets (struct (), int32 (3), 'lime')
%!error <ranks> ee_targets (struct (), int32 (3), 'sv', 'ranks', 0)
%!error <'ranks'> ee_targets (struct (), int32 (3), 'sv', 'ranks', Inf)
%!error <'ranks'> ee_targets (struct (), int32 (3), 'sv', 'ranks', NaN)
%!error <'chunk'> ee_targets (struct (), int32 (3), 'sv', 'ranks', 2, 'chunk', -1)
%!error <'launcher'> ee_targets (struct (), int32 (3), 'sv', 'ranks', 2, 'launcher', ['mpirun' char(0)])
%!error <METHOD> ee_targets (struct (), int32 (3), {'sv'})
%!error <unknown option> ee_targets (struct (), int32 (3), 'sv', 'rankz', 2)
%!error id=ee:badInput ee_targets (struct (), int32 (3), 'sv', 'samples')
%!testif ; strcmp (getenv ('EE_TEST_MPI'), '1')
%! ## an error of the tool comes back with its id and its message
%! X = v.X; X(1, 2) = v.model.vocab + 1;
%! try
%!   ee_targets (v.model, X, 'sv', 'ranks', 2, 'launcher', launcher, 'verbose', false);
%!   error ('no error');
%! catch err
%!   assert (err.identifier, 'ee:badInput');
%!   assert (! isempty (strfind (err.message, 'is not a token id')));
%! end
