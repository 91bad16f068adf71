/** The built isolated-world content script (`dist/content/relay.js`): starts the relay. */
import { startRelay } from '../relay/relay.js';

startRelay();
