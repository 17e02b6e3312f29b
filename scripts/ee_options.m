## -*- texinfo -*-
## @deftypefn {} {@var{P} =} name_value (@var{P}, @var{args}, @var{who})
## Merge name/value pairs @var{args} into the settings struct @var{P}:
## names are case-insensitive and must be fields of @var{P}; anything else
## is @code{ee:badInput}, the message led by @var{who}.
## @end deftypefn
function P = name_value (P, args, who)
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
