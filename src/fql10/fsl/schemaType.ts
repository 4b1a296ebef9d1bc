// A field's type with its defaults (TypeExprParser.scala `schemaTypeExpr`): object types may give
// their fields defaults, except where a default could not apply (under a field that has a default
// itself, a nullable or union type, or anything that is not an object); there each default is an
// error whose hint says why.

import type { Expr, Name, TypeExpr } from '../ast';
import { error, type Diagnostic, type Hint } from '../diagnostic';
import type { SchemaTypeExpr } from './ast';

type Emit = (d: Diagnostic) => void;

/** Why defaults are not allowed below a point (NoDefaultReason). */
type NoDefaultReason = Hint;

export const parentHasDefault = (d: Expr): NoDefaultReason => ({ message: 'Parent has a conflicting default value', span: d.span });

/** A plain type: every default in it is an error. */
export function plainType(t: TypeExpr, defaults: ReadonlyMap<Name, Expr>, emit: Emit, reason: NoDefaultReason | null = null): TypeExpr {
  const walk = (t: TypeExpr): void => {
    switch (t.kind) {
      case 'Cons':
        t.targs.forEach(walk);
        return;
      case 'TypeObject':
      case 'Interface':
        for (const [name, ty] of t.fields) {
          const d = defaults.get(name);
          if (d !== undefined) emit(error('Default values are not allowed here', d.span, undefined, reason === null ? undefined : [reason]));
          walk(ty);
        }
        if (t.kind === 'TypeObject' && t.wildcard !== null) walk(t.wildcard);
        return;
      case 'TypeTuple':
        t.elems.forEach(walk);
        return;
      case 'TypeLambda':
        t.params.forEach(([, p]) => walk(p));
        if (t.variadic !== null) walk(t.variadic[1]);
        walk(t.ret);
        return;
      case 'Union':
      case 'Intersect':
        t.members.forEach(walk);
        return;
      case 'Nullable':
        walk(t.base);
        return;
      default:
        return;
    }
  };
  walk(t);
  return t;
}

/** A field's type: object fields keep their defaults where they may have them. */
export function schemaType(t: TypeExpr, defaults: ReadonlyMap<Name, Expr>, emit: Emit, reason: NoDefaultReason | null): SchemaTypeExpr {
  switch (t.kind) {
    case 'TypeObject': {
      const fields = t.fields.map(([name, ty]) => {
        const d = defaults.get(name) ?? null;
        if (reason !== null && d !== null) emit(error('Default values are not allowed here', d.span, undefined, [reason]));
        return { name, ty: schemaType(ty, defaults, emit, reason ?? (d === null ? null : parentHasDefault(d))), default: d };
      });
      const wildcard = t.wildcard === null ? null : plainType(t.wildcard, defaults, emit);
      return { kind: 'Object', fields, wildcard, span: t.span };
    }
    case 'Nullable':
      return simple(plainType(t, defaults, emit, reason ?? { message: 'Parent is nullable', span: t.qmarkSpan }));
    case 'Union':
      return simple(plainType(t, defaults, emit, reason ?? { message: 'Parent is a union', span: t.span }));
    default:
      return simple(plainType(t, defaults, emit, reason ?? { message: 'Parent is not an object', span: t.span }));
  }
}

function simple(ty: TypeExpr): SchemaTypeExpr {
  return { kind: 'Simple', ty, span: ty.span };
}
