import sys

from rankviz.cli import main

sys.exit(main())
