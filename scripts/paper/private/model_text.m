## -*- texinfo -*-
## @deftypefn {} {@var{t} =} model_text (@var{spec})
## A model spec struct as text ("d 64, ffn 256, heads 4, layers 2").
## @end deftypefn
function t = model_text (s)
  f = setdiff (fieldnames (s), {'kind'});
  c = cellfun (@(n) sprintf ('%s %s', n, strtrim (num2str (s.(n)))), f, 'uniformoutput', false);
  t = strjoin (c', ', ');
end
