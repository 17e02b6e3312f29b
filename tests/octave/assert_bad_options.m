## assert_bad_options (call, bad): every option set in the cell bad (each
## a cell {name, value, ...}) must be refused by call (bad{k}) with the id
## ee:badInput and a message that names the option. The %!test blocks of
## the coalition gateways' help stubs share it (beside
## assert_budget_refusal.m, copied with it into the package by make pkg).
## Errors with the first option set that was accepted or refused wrongly.
function assert_bad_options (call, bad)
  for k = 1:numel (bad)
    accepted = false;
    try
      call (bad{k});
      accepted = true;
    catch err
      if (! strcmp (err.identifier, 'ee:badInput'))
        error ('%s: refused with id "%s" instead of ee:badInput: %s', bad{k}{1}, err.identifier, err.message);
      elseif (isempty (strfind (err.message, bad{k}{1})))
        error ('%s: the refusal does not name the option: %s', bad{k}{1}, err.message);
      end
    end_try_catch
    if (accepted)
      error ('no error for %s', bad{k}{1});
    end
  end
end
