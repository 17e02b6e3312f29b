## run_octave_tests: runs the %!test/%!error blocks of every gateway help
## stub, of every toolbox function (scripts/) and of the paper's
## reproduction (scripts/paper/), and of every tests/octave/test_*.m file,
## plus the dataset checks.
## Prints one line per file and a closing "N passed, N failed, N skipped"
## line; exits non-zero on any failure (when run non-interactively). A
## skipped block is a testif block whose condition does not hold here (the
## file prints its reason in a "SKIP" line): it is counted as skipped, not
## passed.
function run_octave_tests (varargin)
  here = fileparts (mfilename ('fullpath'));
  root = fileparts (fileparts (here));
  addpath (fullfile (root, 'mex'));
  addpath (fullfile (root, 'scripts'), fullfile (root, 'scripts', 'paper'));
  addpath (here);
  files = {};
  for f = dir (fullfile (root, 'mex', 'ee_*.m'))'
    files{end+1} = fullfile (root, 'mex', f.name);
  end
  for sub = {'scripts', fullfile('scripts', 'paper')}
    for f = dir (fullfile (root, sub{1}, '*.m'))'
      files{end+1} = fullfile (root, sub{1}, f.name);
    end
  end
  for f = dir (fullfile (here, 'test_*.m'))'
    if (! strcmp (f.name, 'test_datasets.m'))
      files{end+1} = fullfile (here, f.name);
    end
  end
  if (nargin > 0)   # a filter: only files whose name contains one of the args
    keep = false (size (files));
    for k = 1:numel (varargin)
      keep |= ! cellfun (@isempty, strfind (files, varargin{k}));
    end
    files = files(keep);
  end
  passed = 0; failed = 0; skipped = 0;
  for k = 1:numel (files)
    [~, name] = fileparts (files{k});
    t0 = tic;
    [n, nmax, ~, ~, nskip, nrtskip] = test (files{k}, 'quiet', stdout);
    passed += n; failed += nmax - n; skipped += nskip + nrtskip;
    printf ('%-28s %3d passed, %d failed, %d skipped  (%.1f s)\n', name, n, nmax - n, nskip + nrtskip, toc (t0));
    fflush (stdout);
  end
  if (nargin == 0 || any (strcmp (varargin, 'datasets')))
    [p, f] = test_datasets (fullfile (root, 'datasets'));
    passed += p; failed += f;
  end
  printf ('octave: %d passed, %d failed, %d skipped\n', passed, failed, skipped);
  if (failed > 0 && ! isguirunning ())
    exit (1);
  end
end
