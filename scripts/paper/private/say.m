## -*- texinfo -*-
## @deftypefn {} {} say (@var{P}, @var{fmt}, @dots{})
## The scripts' progress printer: printf and flush when @var{P}.verbose.
## @end deftypefn
function say (P, varargin)
  if (P.verbose)
    printf (varargin{:});
    fflush (stdout);
  end
end
