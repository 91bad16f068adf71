// The polyfill comes from a <script> tag before this module (script-tag.html), or not at all
// (no-polyfill.html): the app imports nothing of it.
import { render } from './render.js';

render();
