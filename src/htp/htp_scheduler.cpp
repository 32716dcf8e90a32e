#include "htp/htp_scheduler.h"

#include <algorithm>
#include <chrono>

namespace openhtp::htp {

CallControl::Verdict HtpScheduler::acquire(Ticket& t, const CallControl* control) {
  t.granted = false;
  t.paused = false;
  t.admin = false;
  uint32_t idle = 0;
  if (state_.compare_exchange_strong(idle, kBusy, std::memory_order_acquire)) {  // nobody holds it, nobody waits
    t.granted = true;
    return CallControl::Verdict::kGoOn;
  }
  std::unique_lock lock(mu_);
  t.seq = next_seq_++;
  waiting_.push_back(&t);
  const uint32_t before = state_.fetch_or(kQueued, std::memory_order_acq_rel);
  update_queue_state();
  if ((before & kBusy) == 0) grant_next();  // freed between our CAS and the lock
  if (control == nullptr || !control->bounded()) {
    cv_of(t).wait(lock, [&] { return t.granted; });
    return CallControl::Verdict::kGoOn;
  }
  // The abort word may be set from another process: look at it every
  // millisecond while waiting.
  for (;;) {
    if (cv_of(t).wait_for(lock, std::chrono::milliseconds(1), [&] { return t.granted; })) {
      return CallControl::Verdict::kGoOn;
    }
    if (const CallControl::Verdict v = control->check(); v != CallControl::Verdict::kGoOn) {
      waiting_.erase(std::find(waiting_.begin(), waiting_.end(), &t));
      update_queue_state();
      return v;
    }
  }
}

void HtpScheduler::acquire_exclusive(Ticket& t) {
  t.granted = false;
  t.paused = false;
  t.admin = true;
  std::unique_lock lock(mu_);
  t.seq = next_seq_++;
  waiting_.push_back(&t);
  ++admins_waiting_;
  const uint32_t before = state_.fetch_or(kQueued, std::memory_order_acq_rel);
  update_queue_state();
  if ((before & kBusy) == 0) grant_next();
  cv_of(t).wait(lock, [&] { return t.granted; });
}

void HtpScheduler::release(Ticket& t) {
  t.granted = false;
  uint32_t busy = kBusy;
  if (state_.compare_exchange_strong(busy, 0, std::memory_order_release)) return;  // nobody waits
  std::lock_guard lock(mu_);
  state_.fetch_and(~kBusy, std::memory_order_acq_rel);
  grant_next();
}

void HtpScheduler::yield(Ticket& running) {
  std::unique_lock lock(mu_);
  running.granted = false;
  running.paused = true;
  ++paused_;
  waiting_.push_back(&running);  // keeps its seq: first of its level when it comes back
  state_.fetch_or(kQueued, std::memory_order_acq_rel);
  state_.fetch_and(~kBusy, std::memory_order_acq_rel);
  update_queue_state();
  grant_next();
  cv_of(running).wait(lock, [&] { return running.granted; });
}

bool HtpScheduler::conflicts_with_paused(const Ticket& t) const {
  if (paused_ == 0 || t.region == nullptr) return false;
  for (const Ticket* p : waiting_) {
    if (p != &t && p->paused && p->region == t.region) return true;
  }
  return false;
}

HtpScheduler::Ticket* HtpScheduler::pick_next() const {
  // An exclusive holder goes first once nothing is paused; until then only
  // paused executes may run (so that they finish), no new ones.
  if (admins_waiting_ > 0 && paused_ == 0) {
    Ticket* first = nullptr;
    for (Ticket* t : waiting_) {
      if (t->admin && (first == nullptr || t->seq < first->seq)) first = t;
    }
    return first;
  }
  Ticket* best = nullptr;
  for (Ticket* t : waiting_) {
    if (t->admin || (admins_waiting_ > 0 && !t->paused) || conflicts_with_paused(*t)) continue;
    if (best == nullptr || t->priority > best->priority || (t->priority == best->priority && t->seq < best->seq)) {
      best = t;
    }
  }
  return best;
}

void HtpScheduler::grant_next() {
  if ((state_.load(std::memory_order_acquire) & kBusy) != 0) return;
  Ticket* next = pick_next();
  if (next == nullptr) return;
  waiting_.erase(std::find(waiting_.begin(), waiting_.end(), next));
  if (next->admin) --admins_waiting_;
  if (next->paused) {
    next->paused = false;
    --paused_;
  }
  state_.fetch_or(kBusy, std::memory_order_acq_rel);
  update_queue_state();
  next->granted = true;
  if (next->cv) next->cv->notify_one();  // else it has not begun to wait: it will see `granted`
}

void HtpScheduler::update_queue_state() {
  int64_t max_priority = -1;
  for (const Ticket* t : waiting_) {
    if (!t->admin && !t->paused) max_priority = std::max<int64_t>(max_priority, t->priority);
  }
  max_waiting_priority_.store(max_priority, std::memory_order_relaxed);
  if (waiting_.empty()) state_.fetch_and(~kQueued, std::memory_order_acq_rel);
}

bool HtpScheduler::preempt_wanted_slow(const Ticket& running) const {
  std::lock_guard lock(mu_);
  if (admins_waiting_ > 0) return false;  // new executes wait for the exclusive holder anyway
  for (const Ticket* t : waiting_) {
    if (t->admin || t->paused || t->priority <= running.priority) continue;
    if (t->region != nullptr && t->region == running.region) continue;  // shares our spill-fill region
    if (conflicts_with_paused(*t)) continue;
    return true;
  }
  return false;
}

}  // namespace openhtp::htp
