// dist/polyfill.iife.js: installs the globals as soon as it loads.
import { install } from './install.js';

install();
