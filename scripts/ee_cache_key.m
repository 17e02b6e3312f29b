## -*- texinfo -*-
## @deftypefn {} {@var{k} =} ee_cache_key (@var{x})
## The cache key of a settings value (struct, cell, char, numeric, logical,
## function handle, nested freely): the first 16 hex digits of the MD5 of a
## canonical text form, in which struct fields are sorted and numbers are
## written with 17 significant digits.
## @end deftypefn
function k = ee_cache_key (x)
  if (nargin != 1)
    error ('ee:badInput', 'ee_cache_key: call ee_cache_key (X) with one value');
  end
  k = hash ('md5', key_text (x))(1:16);
end

function t = key_text (x)
  if (isstruct (x))
    f = sort (fieldnames (x));
    t = sprintf ('struct%s{', mat2str (size (x)));
    for i = 1:numel (x)
      for j = 1:numel (f)
        t = [t f{j} '=' key_text(x(i).(f{j})) ';'];
      end
    end
    t = [t '}'];
  elseif (iscell (x))
    t = sprintf ('cell%s{', mat2str (size (x)));
    for i = 1:numel (x)
      t = [t key_text(x{i}) ','];
    end
    t = [t '}'];
  elseif (ischar (x))
    t = ['''' x(:)' ''''];
  elseif (isnumeric (x) || islogical (x))
    t = [class(x) mat2str(size (x)) '[' sprintf('%.17g,', double (x(:))) ']'];
  elseif (is_function_handle (x))
    t = func2str (x);
  else
    error ('ee:badInput', 'ee_cache_key: cannot key a %s', class (x));
  end
end

%!test
%! k = ee_cache_key (struct ('a', 1, 'b', {{'x', int32(2)}}));
%! assert (ischar (k) && numel (k) == 16 && all (isxdigit (k)));
%! assert (ee_cache_key (struct ('b', {{'x', int32(2)}}, 'a', 1)), k);   # field order does not matter
%! assert (! strcmp (ee_cache_key (struct ('a', 1 + eps, 'b', {{'x', int32(2)}})), k));   # 17 digits see eps
%! assert (! strcmp (ee_cache_key (struct ('a', 1, 'b', {{'x', 2}})), k));               # nor does class
%! assert (! strcmp (ee_cache_key ([1 2]), ee_cache_key ([1; 2])));                   # size is keyed
%! assert (! strcmp (ee_cache_key ('ab'), ee_cache_key ({'a', 'b'})));
%! assert (ee_cache_key (@(x) x + 1), ee_cache_key (@(x) x + 1));
%!error <ee_cache_key: cannot key a> ee_cache_key (containers.Map ())
%!error id=ee:badInput ee_cache_key ()
