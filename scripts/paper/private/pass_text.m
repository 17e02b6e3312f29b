## -*- texinfo -*-
## @deftypefn {} {@var{t} =} pass_text (@var{n})
## The passes per explanation as the figures label them ('1 pass',
## '12 passes'): fractional ('2.5 passes') when the efficiency projection's
## baseline passes are shared by the rows of one length.
## @end deftypefn
function t = pass_text (n)
  if (n == 1)
    t = '1 pass';
  elseif (n == round (n))
    t = sprintf ('%d passes', n);
  else
    t = sprintf ('%.1f passes', n);
  end
end
