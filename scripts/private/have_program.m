## ok = have_program (name): whether the program NAME is on the PATH.
function ok = have_program (name)
  ok = system (sprintf ('command -v %s >/dev/null 2>&1', name)) == 0;
end
