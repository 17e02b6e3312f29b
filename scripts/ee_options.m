## -*- texinfo -*-
## @deftypefn {} {@var{P} =} ee_options (@var{P}, @var{args}, @var{who})
## Merge name/value pairs @var{args} into the settings struct @var{P}:
## names are case-insensitive and must be fields of @var{P}; anything else
## is @code{ee:badInput}, the message led by @var{who}.
## @end deftypefn
function P = ee_options (P, args, who)
  if (nargin != 3 || ! (isstruct (P) && isscalar (P)) || ! iscell (args) || ! ischar (who))
    error ('ee:badInput', 'ee_options: call ee_options (DEFAULTS, ARGS, WHO) with a scalar struct, a cell and a name');
  end
  if (mod (numel (args), 2))
    error ('ee:badInput', '%s: options come in name/value pairs', who);
  end
  for k = 1:2:numel (args)
    name = args{k};
    ok = ischar (name) && isrow (name) && all (name > 0 & name < 128);   # option names are ASCII words
    if (! ok || ! isfield (P, lower (name)))
      if (ok) shown = name; elseif (ischar (name)) shown = 'a name with other characters'; else shown = class (name); end
      error ('ee:badInput', '%s: unknown option ''%s'' (options: %s)', who, shown, strjoin (fieldnames (P)', ', '));
    end
    P.(lower (name)) = args{k+1};
  end
end

%!test
%! P = ee_options (struct ('alpha', 1, 'name', 'a'), {'Alpha', 5, 'name', 'b'}, 'f');
%! assert (P, struct ('alpha', 5, 'name', 'b'));
%! assert (ee_options (struct ('x', 1), {}, 'f'), struct ('x', 1));
%! P = ee_options (struct ('c', {{}}), {'c', {1, 2}}, 'f');   # a cell value is kept whole
%! assert (P.c, {1, 2});
%!error <f: unknown option 'beta' \(options: alpha\)> ee_options (struct ('alpha', 1), {'beta', 2}, 'f')
%!error <f: options come in name/value pairs> ee_options (struct ('alpha', 1), {'alpha'}, 'f')
%!error <unknown option 'double'> ee_options (struct ('alpha', 1), {3, 2}, 'f')
%!error id=ee:badInput ee_options (1, {}, 'f')
