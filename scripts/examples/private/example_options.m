## -*- texinfo -*-
## @deftypefn {} {[@var{outdir}, @var{draw}] =} example_options (@var{who}, @var{args})
## The arguments @var{args} of an example that takes (@var{outdir},
## 'figure', @var{tf}): a missing or empty @var{outdir} is figures/examples
## of the checkout, 'figure' (default true) says whether to draw; any other
## option is ee:badInput naming @var{who}.
## @end deftypefn
function [outdir, draw] = example_options (who, args)
  outdir = '';
  if (! isempty (args))
    outdir = args{1};
  end
  if (isempty (outdir))
    root = fileparts (fileparts (fileparts (fileparts (mfilename ('fullpath')))));
    outdir = fullfile (root, 'figures', 'examples');
  end
  draw = true;
  for k = 2:2:numel (args)
    if (strcmpi (args{k}, 'figure'))
      draw = logical (args{k + 1});
    else
      error ('ee:badInput', '%s: unknown option ''%s''', who, args{k});
    end
  end
end
