## -*- texinfo -*-
## @deftypefn {} {} f5_say (@var{P}, @var{fmt}, @dots{})
## figure5's progress printer: printf and flush when @var{P}.verbose.
## @end deftypefn
function f5_say (P, varargin)
  if (P.verbose)
    printf (varargin{:});
    fflush (stdout);
  end
end
