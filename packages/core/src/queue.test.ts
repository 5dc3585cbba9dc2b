import { deliverJob, deliverJobFor, deliverJobId, notificationsOf, retryJob, retryJobFor, sharedDeliverJobFor, sharedDeliverJobId } from './queue';

const id = '0190a6d2-8c4e-7000-8000-000000000001';
const other = '0190a6d2-8c4e-7000-8000-000000000002';

describe('the notifications queue catalog', () => {
  it("a notification's own deliver job: its id makes a second add a no-op; a delay only when there is one", () => {
    expect(deliverJobFor(id)).toEqual({ name: deliverJob.name, data: { notificationId: id }, opts: { ...deliverJob.options, jobId: deliverJobId(id) } });
    expect(deliverJobFor(id, 5000).opts).toEqual({ ...deliverJob.options, jobId: deliverJobId(id), delay: 5000 });
    // A send due by the time it is queued is not delayed.
    expect(deliverJobFor(id, -20).opts).not.toHaveProperty('delay');
    expect(deliverJob.schema.parse(deliverJobFor(id).data)).toEqual({ notificationId: id });
  });

  it('a shared deliver job carries the ids of the notifications whose rows name it', () => {
    const jobId = sharedDeliverJobId();
    const job = sharedDeliverJobFor(jobId, [id, other]);
    expect(job).toEqual({ name: deliverJob.name, data: { notificationIds: [id, other] }, opts: { ...deliverJob.options, jobId } });
    expect(notificationsOf(deliverJob.schema.parse(job.data))).toEqual([id, other]);
  });

  it('a retry job carries the deliveries to send again, after their delay', () => {
    const job = retryJobFor(id, [other], 1500);
    expect(job).toEqual({ name: retryJob.name, data: { notificationId: id, deliveryIds: [other] }, opts: { ...retryJob.options, delay: 1500 } });
    expect(retryJob.schema.parse(job.data)).toEqual(job.data);
    expect(retryJobFor(id, [other]).opts).toEqual(retryJob.options);
  });
});
