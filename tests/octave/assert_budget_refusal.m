## assert_budget_refusal (call): the memory budget of a gateway (issue 10):
## with EE_MEMORY_MB=1, call () must be refused before it allocates (or
## calls a function model), with the id ee:outOfMemory and a message that
## gives the estimate and names the limit. The %!test blocks of the
## gateways' help stubs (mex/ee_*.m) share it; they put this folder on the
## path from their %!shared block, found beside the test vectors (make pkg
## copies it to the package's tests/octave, so `pkg test` runs them too).
## Errors with what was wrong; the variable is restored either way.
function assert_budget_refusal (call)
  old = getenv ('EE_MEMORY_MB');
  refused = false;
  unwind_protect
    setenv ('EE_MEMORY_MB', '1');
    try
      call ();
    catch err
      refused = true;
    end_try_catch
  unwind_protect_cleanup
    setenv ('EE_MEMORY_MB', old);
  end_unwind_protect
  if (! refused)
    error ('not refused with EE_MEMORY_MB=1');
  elseif (! strcmp (err.identifier, 'ee:outOfMemory'))
    error ('refused with id "%s" instead of ee:outOfMemory: %s', err.identifier, err.message);
  elseif (isempty (regexp (err.message, 'about \d+ MB.*only 1 MB.*EE_MEMORY_MB', 'once')))
    error ('the refusal does not give the estimate and the limit: %s', err.message);
  end
end
