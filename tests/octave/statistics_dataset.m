## -*- texinfo -*-
## @deftypefn {} {@var{d} =} statistics_dataset (@var{name})
## Loads @var{name}.mat from the datasets that Octave's statistics package
## ships (Debian's octave-statistics, which tools/install_deps.sh
## installs): carbig, fisheriris, ...  The package is found with
## @code{pkg list}, so no path is assumed.
## @end deftypefn
function d = statistics_dataset (name)
  l = pkg ('list', 'statistics');
  if (isempty (l))
    error ('ee:ioError', 'statistics_dataset: the statistics package is not installed (Debian: octave-statistics)');
  end
  f = fullfile (l{1}.dir, 'datasets', [name '.mat']);
  if (! exist (f, 'file'))
    error ('ee:ioError', 'statistics_dataset: %s not found', f);
  end
  d = load (f);
end
