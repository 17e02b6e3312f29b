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
    if (! ischar (name) || ! isfield (P, lower (name)))
      if (ischar (name)) shown = name; else shown = class (name); end
      error ('ee:badInput', '%s: unknown option ''%s''', who, shown);
    end
    P.(lower (name)) = args{k+1};
  end
end
