## -*- texinfo -*-
## @deftypefn {} {@var{v} =} ifelse (@var{c}, @var{a}, @var{b})
## @var{a} when @var{c} holds, else @var{b} (any values: a text, a number),
## for the choices inside one expression of the figure and report writers.
## @end deftypefn
function v = ifelse (c, a, b)
  if (c) v = a; else v = b; end
end
