// Loads every function family so each registers its implementations.
import './core-index';
import './refs';
import './documents';
import './call';
import './strings';
import './regex';
import './numbers';
import './time';
import './conversions';
import './typeChecks';
import '../sets';
// Set algebra, set shapes and aggregates over arrays/pages/sets.
import '../setOps';
import '../setAggregates';
import '../match';
import '../events';
import './identity';
import './history';
