// What a server action answers a form with (components/action-form.tsx shows it). `at` makes two
// identical answers in a row distinct, so the form shows the second one too. `field`: the form
// field an error is about, shown next to that field.
export type ActionResult = { ok: boolean; message: string; at: number; field?: string };
