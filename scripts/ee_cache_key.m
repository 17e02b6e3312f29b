## -*- texinfo -*-
## @deftypefn {} {@var{k} =} cache_key (@var{x})
## The cache key of a settings value (struct, cell, char, numeric, logical,
## function handle, nested freely): the first 16 hex digits of the MD5 of a
## canonical text form, in which struct fields are sorted and numbers are
## written with 17 significant digits.
## @end deftypefn
function k = cache_key (x)
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
    error ('ee:badInput', 'cache_key: cannot key a %s', class (x));
  end
end
