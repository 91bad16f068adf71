// The app installs the polyfill itself, before its first render.
import { install } from '@toolwire/polyfill';
import { render } from './render.js';

install();
render();
