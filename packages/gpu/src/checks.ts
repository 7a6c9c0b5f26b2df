import { InputError } from './errors.ts';

/**
 * Option checks that packages above share, so that one value is refused alike (and in the same words)
 * wherever it is passed.
 */

/**
 * Throws unless `options`, the options argument of public function `who`, is an options object, or left
 * out where it is not `required`. JavaScript callers can pass `null` (or a number, a string, an array),
 * which a parameter default does not replace and which would otherwise fail as a TypeError on the first
 * option read.
 */
export function checkOptionsObject(who: string, options: unknown, required = false): void {
  if (options === undefined && !required) return;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    const got =
      options === undefined || options === null
        ? String(options)
        : Array.isArray(options)
          ? 'an array'
          : `a ${typeof options}`;
    throw new InputError(
      `${who} takes an options object${required ? '' : ' (or none)'}, got ${got}`,
      'options',
    );
  }
}

/**
 * Throws unless `maxIterations` is an integer >= 0, or `Infinity` where `infinite` allows a run bounded
 * only by convergence.
 */
export function checkMaxIterations(maxIterations: number, infinite: boolean, where = 'maxIterations'): void {
  const finite = Number.isInteger(maxIterations) && maxIterations >= 0;
  if (finite || (infinite && maxIterations === Number.POSITIVE_INFINITY)) return;
  throw new InputError(
    `maxIterations must be an integer >= 0${infinite ? ' or Infinity' : ''}, got ${maxIterations}`,
    where,
  );
}

/**
 * Throws unless `tolerance` is a finite number >= 0: an infinite one passes any change, so an iteration
 * stops after one step as if converged, and no change is below NaN, so it never converges.
 */
export function checkTolerance(tolerance: number, where = 'tolerance'): void {
  if (!(tolerance >= 0 && Number.isFinite(tolerance))) {
    throw new InputError(`tolerance must be a finite number >= 0, got ${tolerance}`, where);
  }
}

/**
 * A shortest-path distance reached the bound of its encoding (`float`: f32, else u32): the sums saturated
 * there, so no distance can be trusted.
 */
export function distanceOverflowError(float: boolean, vertex: number, where = 'graph.weights'): InputError {
  const bound = float ? 'the largest finite f32 (about 3.4e38)' : '2^32 - 2 (4294967294)';
  return new InputError(
    `the distance of vertex ${vertex} reached ${bound}, the bound of ${float ? 'f32' : 'u32'} distances: ` +
      'scale the weights down',
    where,
  );
}
