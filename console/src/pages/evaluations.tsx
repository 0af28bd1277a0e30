// Placeholder until its page is written.
import { PageHeader } from '../components/ui';

export default function EvaluationsPage() {
  return <PageHeader title="Evaluations" />;
}
