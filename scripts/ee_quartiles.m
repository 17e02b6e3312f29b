## -*- texinfo -*-
## @deftypefn {} {@var{q} =} quartiles (@var{M})
## The 25th, 50th and 75th percentiles (3 x columns) of each column of
## @var{M}, NaN ignored, by linear interpolation between order statistics.
## @end deftypefn
function q = quartiles (M)
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
