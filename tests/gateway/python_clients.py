# Drives the official Python openai / anthropic client against the gateway, as a harness would, and
# prints one JSON object per call: the answer the client assembled, its text and usage, and any stream event types.
import json
import sys


def run(call):
    request = call["request"]
    events = []
    if call["client"] == "openai":
        import openai

        client = openai.OpenAI(base_url=call["base_url"], api_key=call["api_key"], max_retries=0)
        if call["kind"] == "chat":
            if call["stream"]:
                text, usage, finish = "", None, None
                for chunk in client.chat.completions.create(**request, stream=True, stream_options={"include_usage": True}):
                    events.append(chunk.object)
                    if chunk.usage is not None:
                        usage = chunk.usage.model_dump()
                    for choice in chunk.choices:
                        text += choice.delta.content or ""
                        finish = choice.finish_reason or finish
                final = {"finish_reason": finish}
            else:
                completion = client.chat.completions.create(**request)
                final = completion.model_dump(mode="json")
                text, usage = completion.choices[0].message.content, final["usage"]
        else:
            if call["stream"]:
                with client.responses.stream(**request) as stream:
                    for event in stream:
                        events.append(event.type)
                    response = stream.get_final_response()
            else:
                response = client.responses.create(**request)
            final = response.model_dump(mode="json")
            text, usage = response.output_text, final["usage"]
    else:
        import anthropic

        client = anthropic.Anthropic(base_url=call["base_url"], api_key=call["api_key"], max_retries=0)
        if call["stream"]:
            with client.messages.stream(**request) as stream:
                for event in stream:
                    events.append(event.type)
                message = stream.get_final_message()
        else:
            message = client.messages.create(**request)
        final = message.model_dump(mode="json")
        text = "".join(block.text for block in message.content if block.type == "text")
        usage = final["usage"]

    return {"final": final, "events": events, "text": text, "usage": usage}


# One process for a list of calls: importing the clients costs seconds on a loaded machine.
print(json.dumps([run(call) for call in json.loads(sys.argv[1])]))
