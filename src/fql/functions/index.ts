// Loads every function family so each registers its implementations.
import './core-index';
import './refs';
import './documents';
import '../sets';
import '../match';
