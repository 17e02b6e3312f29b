## -*- texinfo -*-
## @deftypefn {} {@var{q} =} ee_quartiles (@var{M})
## The 25th, 50th and 75th percentiles (3 x columns) of each column of
## @var{M}, NaN ignored, by linear interpolation between order statistics.
## @end deftypefn
function q = ee_quartiles (M)
  if (nargin != 1 || ! ((isnumeric (M) || islogical (M)) && isreal (M) && ismatrix (M)))
    error ('ee:badInput', 'ee_quartiles: M must be a real matrix');
  end
  q = NaN (3, columns (M));
  for j = 1:columns (M)
    v = sort (M(! isnan (M(:, j)), j));
    n = numel (v);
    if (n == 0)
      continue;
    end
    for k = 1:3
      p = 1 + (n - 1) * k / 4;
      lo = floor (p); hi = ceil (p);
      q(k, j) = v(lo) + (p - lo) * (v(hi) - v(lo));
    end
  end
end

%!test
%! ## columns: 1..5 (quartiles 2, 3, 4), 1..4 (1.75, 2.5, 3.25), NaN ignored, all NaN
%! M = [1 1 NaN NaN; 2 2 4 NaN; 3 3 NaN NaN; 4 4 8 NaN; 5 NaN NaN NaN];
%! q = ee_quartiles (M);
%! assert (q(:, 1:3), [2 1.75 5; 3 2.5 6; 4 3.25 7], 1e-15);
%! assert (all (isnan (q(:, 4))));
%! assert (double (ee_quartiles (single ([7; 7]))), [7; 7; 7]);
%! q = ee_quartiles (reshape (1:6, 6, 1));
%! assert (q, reshape (quantile (1:6, [0.25 0.5 0.75], 2, 7), 3, 1), 1e-12);   # Octave's method 7 is this rule
%!error id=ee:badInput ee_quartiles ({1})
%!error id=ee:badInput ee_quartiles ([1 2i])
