// Loads the core function families; each registers its functions with `define` at import time.

import './logic';
import './math';
import './arrays';
import './objects';
