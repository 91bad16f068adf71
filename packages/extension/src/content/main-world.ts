/** The built MAIN-world content script (`dist/content/main-world.js`): starts the reader. */
import { startMainWorldReader } from '../main-world/reader.js';

startMainWorldReader();
