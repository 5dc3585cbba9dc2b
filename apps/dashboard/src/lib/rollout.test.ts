import { DEFAULT_ROLLOUT, formToRollout, rolloutErrors } from './rollout';

describe("the broadcast composer's staged rollout", () => {
  it('turns the typed stages and percentages into the API shape', () => {
    expect(rolloutErrors(DEFAULT_ROLLOUT)).toEqual({});
    expect(formToRollout({ stages: ' 5,25 , 100', waitSeconds: '60', failurePercent: '12.5', invalidTokenPercent: '' })).toEqual({
      stages: [5, 25, 100],
      waitSeconds: 60,
      haltWhen: { failureRate: 0.125 },
    });
    expect(formToRollout({ ...DEFAULT_ROLLOUT, failurePercent: '7', invalidTokenPercent: '0.1' }).haltWhen).toEqual({ failureRate: 0.07, invalidTokenRate: 0.001 });
  });

  it.each([
    ['no stage', { stages: ' , ' }, 'stages', 'Give at least one stage'],
    ['a word', { stages: '1, ten, 100' }, 'stages', 'percentages separated by commas'],
    ['zero', { stages: '0, 100' }, 'stages', 'above 0'],
    ['over 100', { stages: '50, 150' }, 'stages', 'at most 100'],
    ['not growing', { stages: '10, 10, 100' }, 'stages', 'must grow'],
    ['not ending at 100', { stages: '1, 10, 50' }, 'stages', 'last stage must be 100'],
    ['eleven stages', { stages: '1,2,3,4,5,6,7,8,9,10,100' }, 'stages', 'At most 10'],
    ['a fractional wait', { waitSeconds: '1.5' }, 'waitSeconds', 'Whole seconds'],
    ['a wait over a day', { waitSeconds: '86401' }, 'waitSeconds', 'Whole seconds'],
    ['an empty wait', { waitSeconds: '' }, 'waitSeconds', 'Whole seconds'],
    ['a failure bound over 100 %', { failurePercent: '120' }, 'failurePercent', 'from 0 to 100'],
    ['a negative invalid-token bound', { invalidTokenPercent: '-1' }, 'invalidTokenPercent', 'from 0 to 100'],
  ])('names %s under its field', (_, change, field, message) => {
    const errors = rolloutErrors({ ...DEFAULT_ROLLOUT, ...change });
    expect(Object.keys(errors)).toEqual([field]);
    expect(errors[field as keyof typeof errors]).toContain(message);
  });
});
