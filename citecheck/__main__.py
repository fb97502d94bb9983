from citecheck import exit_process
from citecheck.cli import main

exit_process(main())
