## -*- texinfo -*-
## @deftypefn {} {[@var{X}, @var{bg}] =} formula_data (@var{F})
## The data of shapley_formulas, which perturbation_methods takes up: 30
## rows @var{X} of @var{F} features and 8 background rows @var{bg}, from
## fixed formulas (the global generators stay as they are).
## @end deftypefn
function [X, bg] = formula_data (F)
  N = 30; K = 8;
  X = 1.5 * sin ((1:N)' * (1:F) * 0.7 + 0.3);
  bg = 0.8 * cos ((1:K)' * (1:F) * 1.3);
end
